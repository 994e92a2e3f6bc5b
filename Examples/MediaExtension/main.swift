import UserNotifications

NotificationService.main()
